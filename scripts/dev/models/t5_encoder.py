"""t5_encoder: transformers T5EncoderModel, tiny random config (d_model 32, 2 layers, 4 heads, vocab 100); returns last_hidden_state."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                    relative_attention_num_buckets=8, relative_attention_max_distance=16)
        self.m = transformers.T5EncoderModel(cfg)

    def forward(self, input_ids):
        return self.m(input_ids=input_ids).last_hidden_state


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, 100, (2, 8), generator=g),)
